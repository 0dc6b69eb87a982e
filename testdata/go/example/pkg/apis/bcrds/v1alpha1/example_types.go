package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Example is a specification for an Example resource.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas"
type Example struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ExampleSpec `json:"spec"`
	// +optional
	Status *ExampleStatus `json:"status,omitempty"`
}

// ExampleSpec is the desired state of an Example.
type ExampleSpec struct {
	// Number of workers the example runs.
	//
	// +kubebuilder:validation:Minimum=1
	Replicas int32 `json:"replicas"`
	// Container image the workers run.
	Image string `json:"image"`
	// Stops reconciliation while true.
	//
	// +optional
	Paused *bool `json:"paused,omitempty"`
}

// ExampleStatus is the observed state of an Example.
type ExampleStatus struct {
	// The generation the controller last acted on.
	//
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ExampleList is a list of Example resources.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type ExampleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Example `json:"items"`
}
