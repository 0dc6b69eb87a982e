// Package v1alpha1 is version v1alpha1 of the bcrds API group.
//
// +k8s:deepcopy-gen=package
// +groupName=bcrds.example.com
package v1alpha1
